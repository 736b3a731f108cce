// Ops the reader does not know: kept opaque, one warning per op name.
module @unknown {
  func.func public @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.custom_call @my_kernel(%x) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.custom_call @my_kernel(%0) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2:2 = "mydialect.split"(%1, %x) {mode = "fast"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
    %3 = stablehlo.add %2#0, %2#1 : tensor<4x8xf32>
    return %3, %2#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
