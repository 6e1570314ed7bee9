/* a 32-bit program (no libc: the machine may have no 32-bit one): exits 7 */
void _start(void)
{
	__asm__ volatile("mov $1, %%eax\n\tmov $7, %%ebx\n\tint $0x80" ::: "memory");
}
