int f(int x)
{
    static int calls;
    calls = calls + 1;
    return x + calls;
}
