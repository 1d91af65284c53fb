/* glibc-style: two stores to one shared table under conditions that differ per lane */
int table[4];

void f(float x, int i)
{
    if (x > 0) table[i & 3] = 1; else table[i & 3] = 2;
}
