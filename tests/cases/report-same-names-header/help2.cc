#include "hdr.h"
NI int help_two(int x) { return twice(x) + 2; }
