# The optional CUDA build (SPACRBENCH_CUDA=AUTO|ON|OFF): only the command's
# GPU workload (src/workload/field_gpu.cu) and the GPU check use the CUDA
# runtime; the library never links it. Sets SPACRBENCH_HAVE_CUDA.
set(SPACRBENCH_HAVE_CUDA OFF)
string(TOUPPER "${SPACRBENCH_CUDA}" _sb_cuda)
if(NOT _sb_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "SPACRBENCH_CUDA='${SPACRBENCH_CUDA}': use AUTO, ON or OFF")
endif()
# AUTO never takes the host's toolkit for a cross build (its nvcc compiles
# for the host: a macOS cross build stopped at CUDA's install_name_tool
# check), nor for macOS, which CUDA no longer supports; ON still tries.
if(_sb_cuda STREQUAL "AUTO" AND (CMAKE_CROSSCOMPILING OR APPLE))
  message(STATUS "CUDA: not looked for in a cross build or for macOS (SPACRBENCH_CUDA=AUTO); "
                 "spacrbench --gpu is not built")
  set(_sb_cuda OFF)
endif()
if(NOT _sb_cuda STREQUAL "OFF" AND SPACRBENCH_BUILD_CLI)
  include(CheckLanguage)
  # check_language looks on PATH only; the toolkit's installers put nvcc
  # under /usr/local/cuda (or $CUDA_PATH / $CUDA_HOME) without touching PATH.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(SPACRBENCH_NVCC nvcc
      HINTS ENV CUDA_PATH ENV CUDA_HOME PATH_SUFFIXES bin
      PATHS /usr/local/cuda/bin /opt/cuda/bin
      DOC "nvcc for SPACRBENCH_CUDA=AUTO|ON (found on PATH or in the toolkit's usual places)")
    if(SPACRBENCH_NVCC)
      set(ENV{CUDACXX} "${SPACRBENCH_NVCC}")
    endif()
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Turing (T4), Ampere and Hopper machine code, plus Hopper's PTX for
    # newer GPUs to compile at load: a short compile that runs on what
    # clusters have; 'native' needs a GPU at configure time. Override with
    # CMAKE_CUDA_ARCHITECTURES.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    set(SPACRBENCH_HAVE_CUDA ON)
    message(STATUS "CUDA ${CUDAToolkit_VERSION}: building spacrbench --gpu for sm ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_sb_cuda STREQUAL "ON")
    message(FATAL_ERROR "SPACRBENCH_CUDA=ON but no CUDA toolkit (nvcc) was found; "
                        "install it, set CMAKE_CUDA_COMPILER, or use SPACRBENCH_CUDA=AUTO/OFF")
  else()
    message(STATUS "CUDA toolkit not found: spacrbench --gpu is not built (SPACRBENCH_CUDA=AUTO)")
  endif()
endif()
