/* Keeps the support archive non-empty. */
typedef int spacrbench_test_support_empty;
