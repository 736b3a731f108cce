module {
  func.func @main(%a: tensor<4x