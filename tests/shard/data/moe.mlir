// A mixture-of-experts layer of our own making (issue 15): 8 tokens of width
// 16, 4 experts with an MLP of 32 each. Every token goes to every expert,
// weighted by its gate (a dense, soft MoE), and the experts' outputs are
// summed. The expert weights carry the expert dimension as a batching
// dimension of their matmuls, as JAX's einsum "etd,edh->eth" lowers.
module @moe {
  func.func public @main(%router: tensor<16x4xf32>, %w1: tensor<4x16x32xf32>, %w2: tensor<4x32x16xf32>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %logits = stablehlo.dot_general %x, %router, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %gates = stablehlo.logistic %logits : tensor<8x4xf32>
    %gb = stablehlo.broadcast_in_dim %gates, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8x16xf32>
    %xb = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<4x8x16xf32>
    %xe = stablehlo.multiply %gb, %xb : tensor<4x8x16xf32>
    %h = stablehlo.dot_general %xe, %w1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
    %a = stablehlo.tanh %h : tensor<4x8x32xf32>
    %y = stablehlo.dot_general %a, %w2, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %out = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    return %out : tensor<8x16xf32>
  }
}
