// Two calls of one private layer function, and a private helper called from it:
// flattening gives paths main -> layer (twice) -> act (once per layer).
module @layers {
  func.func public @main(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %0 = call @layer(%x, %w0) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %1 = func.call @layer(%0, %w1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }
  func.func private @layer(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %1 = call @act(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }
  func.func private @act(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
