module @jit_predict_sequence attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1968x256xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<256x1024xf32> {mhlo.sharding = "{replicated}"}, %arg2: tensor<1024x256xf32> {mhlo.sharding = "{replicated}"}, %arg3: tensor<256x128xf32> {mhlo.sharding = "{replicated}"}, %arg4: tensor<128xf32> {mhlo.sharding = "{replicated}"}, %arg5: tensor<33x79xi32> {mhlo.sharding = "{replicated}"}) -> (tensor<33x79x128xf32> {jax.result_info = ""}) {
    %0 = call @apply_fn(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) : (tensor<1968x256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<33x79xi32>) -> tensor<33x79x128xf32>
    return %0 : tensor<33x79x128xf32>
  }
  func.func private @apply_fn(%arg0: tensor<1968x256xf32>, %arg1: tensor<256x1024xf32>, %arg2: tensor<1024x256xf32>, %arg3: tensor<256x128xf32>, %arg4: tensor<128xf32>, %arg5: tensor<33x79xi32>) -> tensor<33x79x128xf32> {
    %0 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1] : (tensor<33x79xi32>) -> tensor<33x79x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 256>}> : (tensor<1968x256xf32>, tensor<33x79x1xi32>) -> tensor<33x79x256xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [2] x [0] : (tensor<33x79x256xf32>, tensor<256x1024xf32>) -> tensor<33x79x1024xf32>
    %3 = call @silu(%2) : (tensor<33x79x1024xf32>) -> tensor<33x79x1024xf32>
    %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [2] x [0] : (tensor<33x79x1024xf32>, tensor<1024x256xf32>) -> tensor<33x79x256xf32>
    %5 = stablehlo.add %1, %4 : tensor<33x79x256xf32>
    %6 = stablehlo.dot_general %5, %arg3, contracting_dims = [2] x [0] : (tensor<33x79x256xf32>, tensor<256x128xf32>) -> tensor<33x79x128xf32>
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<128xf32>) -> tensor<33x79x128xf32>
    %8 = stablehlo.add %6, %7 : tensor<33x79x128xf32>
    %9 = call @log_softmax(%8) : (tensor<33x79x128xf32>) -> tensor<33x79x128xf32>
    return %9 : tensor<33x79x128xf32>
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
