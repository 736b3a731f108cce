module {
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @f(%a: tensor<2xf32>) -> tensor<4xf32> {
    %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
