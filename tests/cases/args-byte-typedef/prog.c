/* --auto-args: bytes named by a typedef are numbers (Lua's lu_byte printed
 * as '\x05' before); plain char, signed char and unsigned char are characters */
#include <stdint.h>
typedef unsigned char lu_byte;
__attribute__((noinline)) int settt(lu_byte tt, uint8_t u, int8_t s, char c, unsigned char uc, signed char sc)
{
	return tt + u + s + c + uc + sc;
}
__attribute__((noinline)) lu_byte ret_byte(int x) { return (lu_byte)(x + 1); }
int main(void)
{
	return settt(5, 200, -3, 'x', 'y', 'z') + ret_byte(4) > 0 ? 0 : 1;
}
