enum e;

int f(enum e *p)
{
    return 0;
}
