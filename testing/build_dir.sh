# Sourced by the project's scripts with $here set to the checkout: the
# default build tree, beside the checkout and named after it
# (<checkout>-build), so that the checkout's top level holds only the
# project. MXN_BUILD_DIR overrides it in every script.
mxn_default_build=$(cd "$here/.." && pwd)/$(basename "$here")-build
