"""Predication: the structured IR becomes straight-line vector code under masks. Single exit
(``single_exit``), uniform branches kept as branches (``uniform_branches``), if-conversion with block
masks and blends (``ifconvert``), BOSCC guards that skip regions whose mask is all false (``boscc``),
and the ``--dot`` picture of the masks (``dot``)."""
