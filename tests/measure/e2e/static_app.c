/* A statically linked program: LD_PRELOAD cannot reach it, so `orrery run`
 * must warn that the run produced no trace. */
#include <stdio.h>

int main(void) {
  puts("static_app: hello");
  return 0;
}
