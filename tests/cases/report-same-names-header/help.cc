#include "hdr.h"
NI int help_one(int x) { return twice(x) + 1; }
