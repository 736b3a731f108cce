// Two BERT-like encoder layers of our own making (issue 15), written inline
// as PyTorch exports them: the heads (4 of 8) appear only after reshapes,
// and constants are written once at the top and used by every layer: the
// GELU's 0.5 broadcast to the MLP's shape (as `%cst_26 : tensor<1x7x3072xf32>`
// in an exported BERT) and the attention's 1/sqrt(8) at the scores' shape.
// Batch 2, sequence 8, width 32, MLP 64; softmax mocked up as a logistic.
module @bert_layers {
  func.func public @main(%wq0: tensor<32x32xf32>, %wk0: tensor<32x32xf32>, %wv0: tensor<32x32xf32>, %wo0: tensor<32x32xf32>, %w10: tensor<32x64xf32>, %w20: tensor<64x32xf32>, %wq1: tensor<32x32xf32>, %wk1: tensor<32x32xf32>, %wv1: tensor<32x32xf32>, %wo1: tensor<32x32xf32>, %w11: tensor<32x64xf32>, %w21: tensor<64x32xf32>, %x: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
    %half = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_26 = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %cst_scale = stablehlo.constant dense<0.353553385> : tensor<2x4x8x8xf32>
    %q0 = stablehlo.dot_general %x, %wq0, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %k0 = stablehlo.dot_general %x, %wk0, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %v0 = stablehlo.dot_general %x, %wv0, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %q4_0 = stablehlo.reshape %q0 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %k4_0 = stablehlo.reshape %k0 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %v4_0 = stablehlo.reshape %v0 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %qh0 = stablehlo.transpose %q4_0, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %kh0 = stablehlo.transpose %k4_0, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %vh0 = stablehlo.transpose %v4_0, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %s0 = stablehlo.dot_general %qh0, %kh0, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %ss0 = stablehlo.multiply %s0, %cst_scale : tensor<2x4x8x8xf32>
    %p0 = stablehlo.logistic %ss0 : tensor<2x4x8x8xf32>
    %c0 = stablehlo.dot_general %p0, %vh0, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %ct0 = stablehlo.transpose %c0, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %cr0 = stablehlo.reshape %ct0 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %o0 = stablehlo.dot_general %cr0, %wo0, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %r0 = stablehlo.add %o0, %x : tensor<2x8x32xf32>
    %h0 = stablehlo.dot_general %r0, %w10, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %hh0 = stablehlo.multiply %h0, %cst_26 : tensor<2x8x64xf32>
    %a0 = stablehlo.tanh %hh0 : tensor<2x8x64xf32>
    %m0 = stablehlo.dot_general %a0, %w20, contracting_dims = [2] x [0] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %y0 = stablehlo.add %m0, %r0 : tensor<2x8x32xf32>
    %q1 = stablehlo.dot_general %y0, %wq1, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %k1 = stablehlo.dot_general %y0, %wk1, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %v1 = stablehlo.dot_general %y0, %wv1, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %q4_1 = stablehlo.reshape %q1 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %k4_1 = stablehlo.reshape %k1 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %v4_1 = stablehlo.reshape %v1 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %qh1 = stablehlo.transpose %q4_1, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %kh1 = stablehlo.transpose %k4_1, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %vh1 = stablehlo.transpose %v4_1, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %s1 = stablehlo.dot_general %qh1, %kh1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %ss1 = stablehlo.multiply %s1, %cst_scale : tensor<2x4x8x8xf32>
    %p1 = stablehlo.logistic %ss1 : tensor<2x4x8x8xf32>
    %c1 = stablehlo.dot_general %p1, %vh1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %ct1 = stablehlo.transpose %c1, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %cr1 = stablehlo.reshape %ct1 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %o1 = stablehlo.dot_general %cr1, %wo1, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %r1 = stablehlo.add %o1, %y0 : tensor<2x8x32xf32>
    %h1 = stablehlo.dot_general %r1, %w11, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %hh1 = stablehlo.multiply %h1, %cst_26 : tensor<2x8x64xf32>
    %a1 = stablehlo.tanh %hh1 : tensor<2x8x64xf32>
    %m1 = stablehlo.dot_general %a1, %w21, contracting_dims = [2] x [0] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %y1 = stablehlo.add %m1, %r1 : tensor<2x8x32xf32>
    return %y1 : tensor<2x8x32xf32>
  }
}
