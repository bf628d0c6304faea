# One non-exported warnings target; every Orrery target links it PRIVATE.
add_library(orrery_warnings INTERFACE)
add_library(orrery::warnings ALIAS orrery_warnings)
target_compile_options(orrery_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wunused
    -Wnull-dereference -Wformat=2>
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>
  $<$<AND:$<BOOL:${ORRERY_WERROR}>,$<COMPILE_LANGUAGE:C,CXX>>:-Werror>)
# GCC 12 at -O3 (a Release build) reports -Wrestrict and -Wnull-dereference
# inside libstdc++'s own string and vector code that our calls inline (known
# false positives, GCC bugs 105329 and 105651); they stay warnings there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(orrery_warnings INTERFACE
    $<$<AND:$<BOOL:${ORRERY_WERROR}>,$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-Wno-error=restrict -Wno-error=null-dereference>)
endif()
