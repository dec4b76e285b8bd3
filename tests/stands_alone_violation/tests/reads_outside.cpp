// A test that reads a file outside its repository: check_stands_alone.cmake must refuse it.
#include <fstream>
std::ifstream vocab("../shared/data/bpe_simple_vocab_16e6.txt.gz");
