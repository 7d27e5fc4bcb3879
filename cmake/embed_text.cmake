# Turn the text file IN into a C source OUT defining trn_embedded_config.
file(READ ${IN} text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${text}")
file(WRITE ${OUT} "/* generated from ${IN} */\nconst char trn_embedded_config[] = {${bytes}0x00};\n")
