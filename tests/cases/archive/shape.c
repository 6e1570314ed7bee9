/* a library of the program: archived by build-id, with its separate debug file */
__attribute__((noinline)) int area(int w, int h)
{
	return w * h;
}
