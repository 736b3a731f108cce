// Ops the reader does not know: kept opaque, one warning per op name.
module @unknown {
  func.func public @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.custom_call @my_kernel(%x) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.custom_call @my_kernel(%0) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2:2 = "mydialect.split"(%1, %x) {mode = "fast"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
    %3 = stablehlo.add %2#0, %2#1 : tensor<4x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %3) : tensor<i32>, tensor<4x8xf32>
     cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = stablehlo.negate %iterArg_0 : tensor<4x8xf32>
      stablehlo.return %iterArg, %5 : tensor<i32>, tensor<4x8xf32>
    }
    %6 = stablehlo.clamp %x, %4#1, %x : tensor<4x8xf32>
    return %6, %2#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
