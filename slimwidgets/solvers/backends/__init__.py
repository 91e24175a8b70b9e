"""Where the integer programs are solved: HiGHS in this process (``highs``) or in a child process
that can be killed (``worker``), CBC or another PuLP solver (``cbc``), and the dispatch between
them (``mip``)."""
