_Static_assert(sizeof(int) == 8, "int must be 64-bit");

int f(int x)
{
    return x;
}
