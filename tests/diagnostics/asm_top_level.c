__asm__(".globl foo");

int f(int x)
{
    return x;
}
