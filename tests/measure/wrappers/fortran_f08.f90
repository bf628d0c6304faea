! The mpi_f08 bindings: Open MPI routes them through ompi_xxx_f, not mpi_xxx_.
program f08_test
  use mpi_f08
  implicit none
  integer :: rank, size, buf, length
  type(MPI_Status) :: status
  type(MPI_Request) :: request
  type(MPI_Comm) :: dup
  character(len=4096) :: prefix
  character(len=32) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  buf = -1
  call MPI_Irecv(buf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, request)
  call MPI_Send(rank, 1, MPI_INTEGER, mod(rank + 1, size), 5, MPI_COMM_WORLD)
  call MPI_Wait(request, status)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Barrier(dup)
  call MPI_Comm_free(dup)
  call get_environment_variable("ORRERY_TEST_EXPECT", prefix, length)
  if (length > 0) then
    write(name, '(I0)') rank
    open(7, file=prefix(1:length)//'.'//trim(name), status='replace', action='write')
    write(7, '(A,I0)') '1 MPI_IRECV Tag=5 Length=4 Sender=', status%MPI_SOURCE
    write(7, '(A,I0)') '1 MPI_SEND Tag=5 Length=4 Receiver=', mod(rank + 1, size)
    write(7, '(A)') '1 MPI_COLLECTIVE_END Operation=BARRIER CommName=MPI_Comm_dup'
    write(7, '(A)') '1 ENTER Region=MPI_Init'
    close(7)
  end if
  print '(A,I0,A,I0)', 'RESULT rank ', rank, ' got ', buf
  call MPI_Finalize()
end program f08_test
