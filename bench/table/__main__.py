from bench.table.run import main

raise SystemExit(main())
