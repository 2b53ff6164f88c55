import sys

from bench.evening.evening import main

sys.exit(main())
