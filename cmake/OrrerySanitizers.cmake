# Sanitizer and fuzzing builds (docs/robustness.md).
#
#   -DORRERY_SANITIZE=ON   AddressSanitizer + UndefinedBehaviorSanitizer on
#                          every target (GCC or clang); UBSan findings abort.
#   -DORRERY_FUZZ=ON       (clang only) coverage instrumentation for libFuzzer
#                          and the fuzz targets in tests/fuzz/.
#
# scripts/sanitize.sh builds and runs both; CI runs a subset of each.
option(ORRERY_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(ORRERY_FUZZ "Build the libFuzzer targets (clang only)" OFF)

if(ORRERY_SANITIZE OR ORRERY_FUZZ)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 with ASan reports -Wmaybe-uninitialized inside libstdc++'s
    # std::function (instantiated by <regex>): a false positive of the
    # instrumented build that the normal build does not show.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
if(ORRERY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ORRERY_FUZZ needs clang (configure with CC=clang CXX=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
