func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c:2 = "foo.pair"(%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %c_0 = stablehlo.add %c#0, %c#1 : tensor<4x8xf32>
  return %c_0 : tensor<4x8xf32>
}
