module {
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @main(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
