// moe-tiny.mlir: one mixture-of-experts layer for `parplan gen model`'s tests and examples
// (written for parplan, no weights): 256 tokens of width 512, a softmax router over 4 experts,
// each expert an MLP 512 -> 1024 -> 512 with ReLU called from @expert, and a combine that weights
// each expert's output by its gate and sums them (a dense MoE: every token visits every expert).
module @moe_tiny {
  func.func public @main(%arg0: tensor<256x512xf32>, %arg1: tensor<512x4xf32>, %arg2: tensor<512x1024xf32>, %arg3: tensor<1024x512xf32>, %arg4: tensor<512x1024xf32>, %arg5: tensor<1024x512xf32>, %arg6: tensor<512x1024xf32>, %arg7: tensor<1024x512xf32>, %arg8: tensor<512x1024xf32>, %arg9: tensor<1024x512xf32>) -> tensor<256x512xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x4xf32>) -> tensor<256x4xf32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<256x4xf32>, tensor<f32>) -> tensor<256xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<256xf32>) -> tensor<256x4xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<256x4xf32>
    %4 = stablehlo.exponential %3 : tensor<256x4xf32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<256x4xf32>, tensor<f32>) -> tensor<256xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<256xf32>) -> tensor<256x4xf32>
    %7 = stablehlo.divide %4, %6 : tensor<256x4xf32>
    %8 = call @expert(%arg0, %arg2, %arg3) : (tensor<256x512xf32>, tensor<512x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    %9 = stablehlo.slice %7 [0:256, 0:1] : (tensor<256x4xf32>) -> tensor<256x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x512xf32>
    %11 = stablehlo.multiply %8, %10 : tensor<256x512xf32>
    %12 = call @expert(%arg0, %arg4, %arg5) : (tensor<256x512xf32>, tensor<512x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    %13 = stablehlo.slice %7 [0:256, 1:2] : (tensor<256x4xf32>) -> tensor<256x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x512xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<256x512xf32>
    %16 = call @expert(%arg0, %arg6, %arg7) : (tensor<256x512xf32>, tensor<512x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    %17 = stablehlo.slice %7 [0:256, 2:3] : (tensor<256x4xf32>) -> tensor<256x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x512xf32>
    %19 = stablehlo.multiply %16, %18 : tensor<256x512xf32>
    %20 = call @expert(%arg0, %arg8, %arg9) : (tensor<256x512xf32>, tensor<512x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    %21 = stablehlo.slice %7 [0:256, 3:4] : (tensor<256x4xf32>) -> tensor<256x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x512xf32>
    %23 = stablehlo.multiply %20, %22 : tensor<256x512xf32>
    %24 = stablehlo.add %11, %15 : tensor<256x512xf32>
    %25 = stablehlo.add %24, %19 : tensor<256x512xf32>
    %26 = stablehlo.add %25, %23 : tensor<256x512xf32>
    return %26 : tensor<256x512xf32>
  }
  func.func private @expert(%arg0: tensor<256x512xf32>, %arg1: tensor<512x1024xf32>, %arg2: tensor<1024x512xf32>) -> tensor<256x512xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<256x1024xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<256x1024xf32>
    %3 = stablehlo.dot_general %2, %arg2, contracting_dims = [1] x [0] : (tensor<256x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    return %3 : tensor<256x512xf32>
  }
}
