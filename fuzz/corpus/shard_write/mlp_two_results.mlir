// Paper 004 figure 2a: the two-layer MLP, x[256, 32] . w1[32, 64] -> ReLU -> . w2[64, 16].
module @mlp {
  func.func public @main(%x: tensor<256x32xf32>, %w1: tensor<32x64xf32> {mhlo.sharding = "{replicated}"}, %w2: tensor<64x16xf32>) -> (tensor<256x16xf32> {jax.result_info = "[0]"}, tensor<64x16xf32>) attributes {tf.entry = true} {
    %y = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<256x32xf32>, tensor<32x64xf32>) -> tensor<256x64xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<256x64xf32>
    %z = stablehlo.maximum %y, %zeros : tensor<256x64xf32>
    %w = stablehlo.dot_general %z, %w2, contracting_dims = [1] x [0] : (tensor<256x64xf32>, tensor<64x16xf32>) -> tensor<256x16xf32>
    return %w, %w2 : tensor<256x16xf32>, tensor<64x16xf32>
  }
}
