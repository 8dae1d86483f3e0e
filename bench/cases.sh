# The benchmark cases shared by bench/*.sh: `args[case]` is a `dpnc` command line (kernel and
# options) on PolyBench/C 4.2.1 in "$dir" (float) or on bench/kernels. Sourced with `dir` set.
pb=(-I "$dir/utilities" -DDATA_TYPE_IS_FLOAT)
gemm=$dir/linear-algebra/blas/gemm/gemm.c
bicg=$dir/linear-algebra/kernels/bicg/bicg.c
jacobi=$dir/stencils/jacobi-1d/jacobi-1d.c
declare -A args=(
  [gemm1]="$gemm ${pb[*]} -DSMALL_DATASET --tile 32 --par 1"
  [gemm44]="$gemm ${pb[*]} -DSMALL_DATASET --tile 32 --par 4,4"
  [bicg1]="$bicg ${pb[*]} -DSMALL_DATASET --tile 32 --par 1"
  [bicg16]="$bicg ${pb[*]} -DSMALL_DATASET --tile 32 --par 16"
  [bicg16i]="$bicg ${pb[*]} -DSMALL_DATASET --tile 32 --par 16 --subbands interleaved"
  [jacobi1]="$jacobi ${pb[*]} -DMEDIUM_DATASET --tile 64 --par 1"
  [jacobi16]="$jacobi ${pb[*]} -DMEDIUM_DATASET --tile 64 --par 16"
  [jacobi16-rows]="$jacobi ${pb[*]} -DMEDIUM_DATASET --tile 64,1024 --par 16"
  [saxpy]="bench/kernels/saxpy.c --tile 1024"
  [saxpy16]="bench/kernels/saxpy.c --tile 1024 --simd 16"
  [gemm44-medium]="$gemm ${pb[*]} -DMEDIUM_DATASET --tile 32 --par 4,4"
  # j tiles of 128: a value of A that every lane reads serves 8 vectors of a sub-band, not 2.
  [gemm44x4-medium]="$gemm ${pb[*]} -DMEDIUM_DATASET --tile 32,128,32 --par 4,4 --simd 4"
  [gemm16x4-medium]="$gemm ${pb[*]} -DMEDIUM_DATASET --tile 32 --par 16,1 --simd 4"
)
