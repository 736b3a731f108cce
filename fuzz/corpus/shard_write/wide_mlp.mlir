// The MLP of figure 2 with a small batch and a wide hidden layer, x[8, 32] . w1[32, 512] -> ReLU
// -> . w2[512, 32]: its weights outweigh its activations, so sharding the batch is fastest and
// sharding the hidden dimension (Megatron) takes the least memory.
module @wide_mlp {
  func.func public @main(%x: tensor<8x32xf32>, %w1: tensor<32x512xf32>, %w2: tensor<512x32xf32>) -> tensor<8x32xf32> {
    %y = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x512xf32>) -> tensor<8x512xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<8x512xf32>
    %z = stablehlo.maximum %y, %zeros : tensor<8x512xf32>
    %w = stablehlo.dot_general %z, %w2, contracting_dims = [1] x [0] : (tensor<8x512xf32>, tensor<512x32xf32>) -> tensor<8x32xf32>
    return %w : tensor<8x32xf32>
  }
}
