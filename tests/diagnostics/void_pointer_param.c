int f(void *p)
{
    return *(int *) p;
}
