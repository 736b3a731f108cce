func.func @main() {
  %0:2