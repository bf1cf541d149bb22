# How llama.cpp is compiled for Engram: the one place the README install (bootstrap.sh), CI
# (through bootstrap.sh), the packaged app (build.sh) and the release workflow take it from.
# Source it, then call `llama_cmake_args`.
#
# Never -march=native: a library tuned for the build machine dies with "Illegal instruction" on
# an older CPU, and on a CPU that reports AMX under a hypervisor that does not grant the tile
# state it dies on the build machine itself (ggml's AMX kernels, turned on by -march=native).
# The x86-64 baseline is what every laptop CPU since 2013-2015 runs (Haswell / Zen:
# AVX2, FMA, F16C, BMI2); AVX-512, AVX-VNNI and AMX stay off. ARM64 builds for plain armv8-a
# with NEON; Apple Silicon takes llama-cpp-python's own Metal settings.
#
# Runtime CPU dispatch (ggml's GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS) is not used:
# llama-cpp-python 0.3.36 installs only the fixed ggml-cpu library, not the per-CPU variants,
# and never calls ggml_backend_load_all(), so a DL build loads no CPU backend at all.
# bench/runtime.py --native measures what the baseline costs against a native build.

# Bump when the flags change: bootstrap.sh rebuilds llama.cpp when this differs from its stamp.
LLAMA_FLAGS_VERSION=1

llama_cmake_args() {
    # LLAVA_BUILD=OFF: Engram reads no images, and the multimodal library doubles the compile time.
    printf '%s ' "-DLLAVA_BUILD=OFF"
    local machine
    machine="$(uname -m)"
    case "$machine" in
    x86_64 | amd64 | AMD64)
        echo "-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON" \
            "-DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF" \
            "-DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF" \
            "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
        ;;
    aarch64 | arm64)
        echo "-DGGML_NATIVE=OFF"
        ;;
    *)
        echo "-DGGML_NATIVE=OFF"
        ;;
    esac
}
