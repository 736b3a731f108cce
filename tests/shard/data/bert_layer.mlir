// One BERT-like encoder layer of our own making (issue 15), written as
// PyTorch exports attention: the projections are plain [d, d] matmuls and
// the heads (4 of 8) appear only after a reshape of their outputs, and are
// merged back by a reshape before the output projection. Batch 2, sequence
// 8, width 32, MLP 64; softmax mocked up as a logistic.
module @bert_layer {
  func.func public @main(%wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>, %x: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
    %q = stablehlo.dot_general %x, %wq, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %k = stablehlo.dot_general %x, %wk, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %v = stablehlo.dot_general %x, %wv, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %q4 = stablehlo.reshape %q : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %k4 = stablehlo.reshape %k : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %v4 = stablehlo.reshape %v : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %qh = stablehlo.transpose %q4, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %kh = stablehlo.transpose %k4, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %vh = stablehlo.transpose %v4, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %s = stablehlo.dot_general %qh, %kh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %p = stablehlo.logistic %s : tensor<2x4x8x8xf32>
    %c = stablehlo.dot_general %p, %vh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %ct = stablehlo.transpose %c, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %cr = stablehlo.reshape %ct : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %o = stablehlo.dot_general %cr, %wo, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %r = stablehlo.add %o, %x : tensor<2x8x32xf32>
    %h = stablehlo.dot_general %r, %w1, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %a = stablehlo.tanh %h : tensor<2x8x64xf32>
    %m = stablehlo.dot_general %a, %w2, contracting_dims = [2] x [0] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %y = stablehlo.add %m, %r : tensor<2x8x32xf32>
    return %y : tensor<2x8x32xf32>
  }
}
