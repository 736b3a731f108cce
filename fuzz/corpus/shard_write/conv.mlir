// A 3x3 convolution, NHWC, padding 1: x[1, 8, 8, 4] * k[3, 3, 4, 4] -> y[1, 8, 8, 4]; the
// spatial dimensions of x and y are different dimension names (the window relates them).
module @conv {
  func.func public @main(%x: tensor<1x8x8x4xf32>, %k: tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32> {
    %y = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32>
    return %y : tensor<1x8x8x4xf32>
  }
}
