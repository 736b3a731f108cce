module {
  func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
    %d = call @nowhere(%a) : (tensor<4x8xf32>) -> tensor<4x2xf32>
    return %d : tensor<4x2xf32>
  }
}
