// Paper 004 figure 5a: simplified attention (softmax mocked up as averaging),
// S = 128, D = 64, H1 = 32, H2 = 48. The generic form of one op and loc() are on purpose.
module @attention attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%x: tensor<128x64xf32>, %wq: tensor<64x32xf32>, %wk: tensor<64x32xf32>, %wv: tensor<64x48xf32>) -> tensor<128x48xf32> {
    %k = stablehlo.dot_general %x, %wk, contracting_dims = [1] x [0] : (tensor<128x64xf32>, tensor<64x32xf32>) -> tensor<128x32xf32>
    %v = stablehlo.dot_general %x, %wv, contracting_dims = [1] x [0] : (tensor<128x64xf32>, tensor<64x48xf32>) -> tensor<128x48xf32> loc("attn.py":7:3)
    %q = "stablehlo.dot_general"(%x, %wq) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<128x64xf32>, tensor<64x32xf32>) -> tensor<128x32xf32>
    %qt = stablehlo.transpose %q, dims = [1, 0] : (tensor<128x32xf32>) -> tensor<32x128xf32>
    %a = stablehlo.dot_general %k, %qt, contracting_dims = [1] x [0] : (tensor<128x32xf32>, tensor<32x128xf32>) -> tensor<128x128xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %b = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x128xf32>, tensor<f32>) -> tensor<128xf32>
    %c = stablehlo.broadcast_in_dim %b, dims = [0] : (tensor<128xf32>) -> tensor<128x128xf32>
    %d = stablehlo.divide %a, %c : tensor<128x128xf32>
    %z = stablehlo.dot_general %d, %v, contracting_dims = [1] x [0] : (tensor<128x128xf32>, tensor<128x48xf32>) -> tensor<128x48xf32>
    return %z : tensor<128x48xf32>
  }
}
#loc = loc("attn.py":1:1)
