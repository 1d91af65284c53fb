/* Found by expand-fuzz --isa avx2 (seed 20261126, program 379; reduced by hand).
   expand-fuzz: isa avx2
   expand-fuzz: options boscc=off

   Bug: "signal 11 in the vector call" (on every ISA). The loop counter 'i' differs per lane and is
   stepped in every lane (predication/ifconvert.py: a lane that left computes garbage nobody reads), so
   in a lane whose x & 7 is 0 it is 0xffffffff from the second round on. The body's reads of T1[i]
   read element 0 in the lanes that are off (the index is blended with 0 under the statement's mask),
   but the read in the if's condition did not: a block's mask is 'parent && cond', a statement with no
   mask of its own, and the printer printed 'cond' for every lane. T1 is a whole array, so its index is
   read unsigned: T1[4294967295].

   Fix: emit/printer.py, Printer.mask: in 'm && cond' with 'm' a block mask, 'cond' is printed under
   'm' (the lanes where the scalar code tests it): a varying index reads element 0 in the other lanes,
   and a uniform read (a scalar loop counter past the table's end) or division runs only if one of
   them is on. */
static const int T1[8] = {3, 6, 7, 15, 9, 255, 14, 1};

int f(unsigned x, int y)
{
    int s = 0;
    for (unsigned i = x & 7; i > 0; i--) {
        if (T1[i] > y)
            s += T1[i];
    }
    return s;
}
