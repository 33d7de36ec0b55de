/*
 * test_funcname.c - the function names users see (beam/funcname.c): symbol
 * versions dropped, C++ symbols demangled without their parameter lists.
 */
#include "beam.h"
#include "test.h"

static const char *name(const char *sym)
{
	static char out[256];
	argus_func_name(sym, out, sizeof(out));
	return out;
}

TEST(a_c_symbol_keeps_its_name_without_its_version)
{
	ASSERT_STR_EQ(name("g_main_context_iterate"), "g_main_context_iterate");
	ASSERT_STR_EQ(name("pthread_setaffinity_np@@GLIBC_2.34"), "pthread_setaffinity_np");
	ASSERT_STR_EQ(name("memcpy@GLIBC_2.2.5"), "memcpy");
}

TEST(a_cpp_method_is_its_qualified_name)
{
	/* abiword's layout (realapps r8's truth names it so) */
	ASSERT_STR_EQ(name("_ZN12FL_DocLayout11fillLayoutsEv"), "FL_DocLayout::fillLayouts");
	/* parameters and const go, templates stay */
	ASSERT_STR_EQ(name("_ZNK7QString4sizeEv"), "QString::size");
	ASSERT_STR_EQ(name("_ZN7QWidget10setEnabledEb"), "QWidget::setEnabled");
	ASSERT_STR_EQ(name("_ZNSt6vectorIiSaIiEE9push_backERKi"),
	              "std::vector<int, std::allocator<int> >::push_back");
	ASSERT_STR_EQ(name("_ZN12_GLOBAL__N_13fooEv"), "(anonymous namespace)::foo");
}

TEST(operator_call_keeps_its_parentheses)
{
	ASSERT_STR_EQ(name("_ZNK3FooclEi"), "Foo::operator()");
}

TEST(what_does_not_demangle_is_left_as_it_is)
{
	ASSERT_STR_EQ(name("_Znot_a_cpp_name"), "_Znot_a_cpp_name");
	ASSERT_STR_EQ(name("_Z"), "_Z");
	ASSERT_STR_EQ(name(""), "");
}

TEST_MAIN(TEST_ENTRY(a_c_symbol_keeps_its_name_without_its_version),
          TEST_ENTRY(a_cpp_method_is_its_qualified_name),
          TEST_ENTRY(operator_call_keeps_its_parentheses),
          TEST_ENTRY(what_does_not_demangle_is_left_as_it_is))
