int f(int **pp)
{
    return **pp;
}
