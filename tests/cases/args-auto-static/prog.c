/* (the case's program is cab, from cm.c, ca.c and cb.c: see check.py) */
int main(void)
{
	return 0;
}
