/* loaded twice, from two copies */
__attribute__((noinline)) int area(int w, int h)
{
	return w * h;
}
