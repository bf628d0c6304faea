# One non-exported warnings target; every Orrery target links it PRIVATE.
add_library(orrery_warnings INTERFACE)
add_library(orrery::warnings ALIAS orrery_warnings)
target_compile_options(orrery_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference -Wformat=2>
  $<$<AND:$<BOOL:${ORRERY_WERROR}>,$<COMPILE_LANGUAGE:C,CXX>>:-Werror>)
