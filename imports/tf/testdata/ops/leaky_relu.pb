
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
*
y	LeakyRelux*
T0*
alpha%ÍÌL>"ª