#!/bin/sh
# Gnumeric, and a CSV file of 100 000 rows x 6 columns for the user to open.
. "$(dirname "$0")/../common/realapps.sh"
python3 -c 'import sys
with open("big.csv", "w") as f:
    f.write("id,name,amount,price,date,note\n")
    for i in range(100000):
        f.write("%d,item %d,%d,%.2f,2024-%02d-%02d,ordinary row\n" % (i, i, i % 97, i * 0.37, i % 12 + 1, i % 28 + 1))'
exec /usr/bin/gnumeric
