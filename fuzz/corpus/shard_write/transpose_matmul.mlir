// Paper 004 section 3.3: a matmul of a tensor with its own transpose, y = x . x^T,
// so one dimension of x meets itself (the conflict the analysis must report).
module @transpose_matmul {
  func.func public @main(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
    %xt = stablehlo.transpose %x, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %y = stablehlo.dot_general %x, %xt, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    return %y : tensor<8x8xf32>
  }
}
