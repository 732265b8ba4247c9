/*
 * Linked into every *.san unit test: libatf-c keeps its list of test
 * cases until exit, which LeakSanitizer would report as the test's
 * leak.  Only that library's is suppressed; every leak of ours counts.
 */
const char	*__lsan_default_suppressions(void);
const char	*__lsan_default_options(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libatf-c.so\n";
}

/* The tests compare a child's stderr whole: no suppression report. */
const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}
