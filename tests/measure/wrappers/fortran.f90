! A Fortran program: its MPI calls reach the library through mpi_xxx_ symbols.
program fortran_test
  use mpi
  implicit none
  integer :: ierr, rank, size, left, right, sub, subrank, subsize, i
  logical :: flag
  integer :: requests(2), status(MPI_STATUS_SIZE)
  integer :: sendbuf(4), recvbuf(4)
  double precision :: total
  character(len=4096) :: prefix
  character(len=64) :: line
  integer :: length, unit

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  call get_environment_variable("ORRERY_TEST_EXPECT", prefix, length)
  unit = 42
  if (length > 0) then
    write(line, '(I0)') rank
    open(unit, file=prefix(1:length)//'.'//trim(line), status='replace', action='write')
  end if

  sendbuf = rank
  ! blocking ring with even/odd ordering; receive with wildcards
  if (mod(rank, 2) == 0) then
    call MPI_Send(sendbuf, 4, MPI_INTEGER, right, 21, MPI_COMM_WORLD, ierr)
    call MPI_Recv(recvbuf, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(recvbuf, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(sendbuf, 4, MPI_INTEGER, right, 21, MPI_COMM_WORLD, ierr)
  end if
  call expect_line('1 MPI_SEND Tag=21 Length=16 Receiver=', right)
  call expect_line('1 MPI_RECV Tag=21 Length=16 Sender=', status(MPI_SOURCE))

  ! non-blocking with MPI_STATUSES_IGNORE
  call MPI_Irecv(recvbuf, 4, MPI_INTEGER, left, 22, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Isend(sendbuf, 4, MPI_INTEGER, right, 22, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  call expect_line('1 MPI_IRECV Tag=22 Length=16 Sender=', left)
  call expect_line('1 MPI_ISEND Tag=22 Length=16 Receiver=', right)

  ! a test loop: unsuccessful tests are only counted
  call MPI_Irecv(recvbuf, 4, MPI_INTEGER, MPI_ANY_SOURCE, 23, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Send(sendbuf, 4, MPI_INTEGER, right, 23, MPI_COMM_WORLD, ierr)
  flag = .false.
  i = 0
  do while (.not. flag)
    call MPI_Test(requests(1), flag, status, ierr)
    i = i + 1
  end do
  call expect_line('1 MPI_IRECV Tag=23 Sender=', status(MPI_SOURCE))
  call expect_line('counted MPI_Test ', i - 1)

  ! collectives, MPI_IN_PLACE, a split communicator
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect_line('1 MPI_COLLECTIVE_END Operation=ALLREDUCE Sent=8 Received=', 8)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call MPI_Bcast(sendbuf, 2, MPI_INTEGER, 0, sub, ierr)
  call MPI_Barrier(sub, ierr)
  call expect_line('1 MPI_COLLECTIVE_END Operation=BARRIER CommName=MPI_Comm_split Sent=', 0)
  call MPI_Comm_free(sub, ierr)
  print '(A,I0,A,F6.1)', 'RESULT rank ', rank, ' total ', total
  if (length > 0) close(unit)
  call MPI_Finalize(ierr)

contains

  subroutine expect_line(text, value)
    character(len=*), intent(in) :: text
    integer, intent(in) :: value
    if (length > 0) write(unit, '(A,I0)') text, value
  end subroutine expect_line

end program fortran_test
