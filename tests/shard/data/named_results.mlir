// The sort of multi_result.mlir with its results written one name each
// ("%s0, %s1 = ...", as an op that names its results prints them): each
// result is renamed and constrained as a lone result is.
module @named_results {
  func.func public @main(%w1: tensor<64x128xf32>, %w2: tensor<128x64xf32>, %x: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
    %1 = stablehlo.iota dim = 1 : tensor<8x128xi32>
    %s0, %s1 = "stablehlo.sort"(%0, %1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
      %p = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<8x128xf32>, tensor<8x128xi32>) -> (tensor<8x128xf32>, tensor<8x128xi32>)
    %3 = stablehlo.convert %s1 : (tensor<8x128xi32>) -> tensor<8x128xf32>
    %4 = stablehlo.add %s0, %3 : tensor<8x128xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %4) : tensor<i32>, tensor<8x128xf32>
     cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %6 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6 = stablehlo.tanh %iterArg_0 : tensor<8x128xf32>
      stablehlo.return %iterArg, %6 : tensor<i32>, tensor<8x128xf32>
    }
    %7 = stablehlo.multiply %5#1, %4 : tensor<8x128xf32>
    %8 = stablehlo.dot_general %7, %w2, contracting_dims = [1] x [0] : (tensor<8x128xf32>, tensor<128x64xf32>) -> tensor<8x64xf32>
    return %8 : tensor<8x64xf32>
  }
}
