/* fntrace archive: the trace read elsewhere after the program, its library
 * and its debug file are gone */
int area(int w, int h);

__attribute__((noinline)) static int total(int n)
{
	int t = 0;
	for (int i = 1; i <= n; i++)
		t += area(i, 2);
	return t;
}

int main(void)
{
	return total(3) == 12 ? 0 : 1;
}
