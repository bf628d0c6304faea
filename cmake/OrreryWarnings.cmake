# One non-exported warnings target; every Orrery target links it PRIVATE.
add_library(orrery_warnings INTERFACE)
add_library(orrery::warnings ALIAS orrery_warnings)
target_compile_options(orrery_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wunused
    -Wnull-dereference -Wformat=2>
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>
  $<$<AND:$<BOOL:${ORRERY_WERROR}>,$<COMPILE_LANGUAGE:C,CXX>>:-Werror>)
