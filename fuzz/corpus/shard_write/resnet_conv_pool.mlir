module @jit__unnamed_wrapped_function_ attributes {jax.uses_shape_polymorphism = false} {
  func.func public @main(%arg0: tensor<1x3x224x224xf32>, %cst_2: tensor<7x7x3x64xf32>) -> (tensor<1x56x56x64xf32> {jax.result_info = ".x"}) {
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %w = stablehlo.constant dense_resource<__elided__> : tensor<64xf32>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 3, 1] : (tensor<1x3x224x224xf32>) -> tensor<1x224x224x3xf32>
    %1 = stablehlo.convolution(%0, %cst_2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[3, 3], [3, 3]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x224x224x3xf32>, tensor<7x7x3x64xf32>) -> tensor<1x112x112x64xf32>
    %2 = stablehlo.reshape %w : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2, 3] : (tensor<1x1x1x64xf32>) -> tensor<1x112x112x64xf32>
    %16 = stablehlo.multiply %1, %3 : tensor<1x112x112x64xf32>
    %17 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%16, %17) <{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %870 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %870 : tensor<f32>
    }) : (tensor<1x112x112x64xf32>, tensor<f32>) -> tensor<1x56x56x64xf32>
    return %18 : tensor<1x56x56x64xf32>
  }
}
