/* the bench's mix program (bench/src/mix.c), as the benchmark builds it */
#include "../../../bench/src/mix.c"
