module @slice {
  func.func private @_var(%arg0: tensor<33x79x256xf32>, %arg1: tensor<i32>) -> tensor<33x79x1xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<33x79x256xf32>, tensor<f32>) -> tensor<33x79xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x1xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<33x79x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<33x79x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<33x79x1xf32>) -> tensor<33x79x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<33x79x256xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<33x79x256xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %8 = stablehlo.subtract %cst_0, %7 : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<33x79x256xf32>, tensor<f32>) -> tensor<33x79xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<33x79x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<33x79x1xf32>
    %13 = stablehlo.compare  GT, %8, %cst_1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %14 = call @_where(%13, %12, %cst) : (tensor<i1>, tensor<33x79x1xf32>, tensor<f32>) -> tensor<33x79x1xf32>
    return %14 : tensor<33x79x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<33x79x1xf32>, %arg2: tensor<f32>) -> tensor<33x79x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<33x79x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<33x79x1xf32>
    return %2 : tensor<33x79x1xf32>
  }
  func.func private @silu(%arg0: tensor<33x79x1024xf32>) -> tensor<33x79x1024xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.negate %arg0 : tensor<33x79x1024xf32>
    %1 = stablehlo.exponential %0 : tensor<33x79x1024xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<33x79x1024xf32>
    %3 = stablehlo.add %2, %1 : tensor<33x79x1024xf32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<33x79x1024xf32>
    %5 = stablehlo.divide %4, %3 : tensor<33x79x1024xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<33x79x1024xf32>
    return %6 : tensor<33x79x1024xf32>
  }
  func.func private @log_softmax(%arg0: tensor<33x79x128xf32>) -> tensor<33x79x128xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [2] : (tensor<33x79x128xf32>, tensor<f32>) -> tensor<33x79xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<33x79xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<33x79xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<33x79x1xf32>) -> tensor<33x79x128xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<33x79x128xf32>
    %6 = stablehlo.exponential %5 : tensor<33x79x128xf32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<33x79x128xf32>, tensor<f32>) -> tensor<33x79xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x1xf32>
    %9 = stablehlo.log %8 : tensor<33x79x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<33x79x1xf32>) -> tensor<33x79x128xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<33x79x128xf32>
    return %11 : tensor<33x79x128xf32>
  }
}
