__int128 f(__int128 x)
{
    return x + 1;
}
